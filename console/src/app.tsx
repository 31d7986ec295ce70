import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { BrowserRouter, Navigate, Route, Routes } from 'react-router';
import { ApiProblem } from './api/problem.ts';
import { heldSession, subscribeToSession } from './api/token.ts';
import { SignedIn } from './components/layout.tsx';
import { AdminEditPage } from './pages/admin-edit.tsx';
import { AdminNewPage } from './pages/admin-new.tsx';
import { AdminsPage } from './pages/admins.tsx';
import { AnalyticsPage } from './pages/analytics.tsx';
import { AuditLogPage } from './pages/audit-log.tsx';
import { BansPage } from './pages/bans.tsx';
import { ChannelEditPage } from './pages/channel-edit.tsx';
import { ChannelNewPage } from './pages/channel-new.tsx';
import { ChannelsPage } from './pages/channels.tsx';
import { CommentsPage } from './pages/comments.tsx';
import { ComplaintPage } from './pages/complaint.tsx';
import { ComplaintsPage } from './pages/complaints.tsx';
import { CsatPage } from './pages/csat.tsx';
import { HistoryPage } from './pages/history.tsx';
import { NotFoundPage } from './pages/not-found.tsx';
import { NoticeNewPage } from './pages/notice-new.tsx';
import { NoticesPage } from './pages/notices.tsx';
import { PostEditPage } from './pages/post-edit.tsx';
import { PostNewPage } from './pages/post-new.tsx';
import { PostStatsPage } from './pages/post-stats.tsx';
import { PostsPage } from './pages/posts.tsx';
import { ReasonEditPage } from './pages/reason-edit.tsx';
import { ReasonsPage } from './pages/reasons.tsx';
import { ReportsPage } from './pages/reports.tsx';
import { SignInPage } from './pages/sign-in.tsx';

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
            <Route path="posts/new" element={<PostNewPage />} />
            <Route path="posts/:postId" element={<PostEditPage />} />
            <Route path="posts/:postId/stats" element={<PostStatsPage />} />
            <Route path="reports" element={<ReportsPage />} />
            <Route path="comments" element={<CommentsPage />} />
            <Route path="bans" element={<BansPage />} />
            <Route path="history" element={<HistoryPage />} />
            <Route path="csat" element={<CsatPage />} />
            <Route path="complaints" element={<ComplaintsPage />} />
            <Route path="complaints/:id" element={<ComplaintPage />} />
            <Route path="analytics" element={<AnalyticsPage />} />
            <Route path="notices" element={<NoticesPage />} />
            <Route path="notices/new" element={<NoticeNewPage />} />
            <Route path="admins" element={<AdminsPage />} />
            <Route path="admins/new" element={<AdminNewPage />} />
            <Route path="admins/:id" element={<AdminEditPage />} />
            <Route path="reasons" element={<ReasonsPage />} />
            <Route path="reasons/:id" element={<ReasonEditPage />} />
            <Route path="audit-log" element={<AuditLogPage />} />
            <Route path="*" element={<NotFoundPage />} />
          </Route>
        </Routes>
      </BrowserRouter>
    </QueryClientProvider>
  );
}
