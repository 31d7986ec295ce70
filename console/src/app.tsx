import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { ApiProblem } from './api/problem.ts';
import { heldSession, subscribeToSession } from './api/token.ts';
import { SignedIn } from './components/layout.tsx';
import { ChannelEditPage } from './pages/channel-edit.tsx';
import { ChannelNewPage } from './pages/channel-new.tsx';
import { ChannelsPage } from './pages/channels.tsx';
import { NotFoundPage } from './pages/not-found.tsx';
import { NotYetPage } from './pages/not-yet.tsx';
import { PostsPage } from './pages/posts.tsx';
import { SignInPage } from './pages/sign-in.tsx';
import { sections } from './sections.ts';

/** Where the service serves the console (src/http/routes/console.ts); Vite's `base` says the same. */
export const BASE_PATH = '/console';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A refusal (a 4xx problem) is an answer, not a hiccup: asking again changes nothing.
      retry: (failures, error) =>
        !(error instanceof ApiProblem && error.problem.status < 500) && failures < 2,
    },
  },
});

// What one admin's session read stays with it: a sign-out, or a session the server ended, drops it all.
subscribeToSession(() => {
  if (heldSession() === null) queryClient.clear();
});

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <BrowserRouter basename={BASE_PATH}>
        <Routes>
          <Route path="sign-in" element={<SignInPage />} />
          <Route element={<SignedIn />}>
            <Route index element={<Navigate to="/channels" replace />} />
            <Route path="channels" element={<ChannelsPage />} />
            <Route path="channels/new" element={<ChannelNewPage />} />
            <Route path="channels/:id" element={<ChannelEditPage />} />
            <Route path="posts" element={<PostsPage />} />
            {sections
              .filter((section) => !section.built)
              .map((section) => (
                <Route key={section.path} path={section.path} element={<NotYetPage section={section} />} />
              ))}
            <Route path="*" element={<NotFoundPage />} />
          </Route>
        </Routes>
      </BrowserRouter>
    </QueryClientProvider>
  );
}
