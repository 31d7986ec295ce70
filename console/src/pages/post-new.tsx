import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useChannels } from '../api/channels.ts';
import { newIdempotencyKey } from '../api/keys.ts';
import { type AdminPost, UploadRefused, useSavePost } from '../api/posts.ts';
import { can } from '../api/session.ts';
import { useAdmin } from '../components/layout.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import { changesOf, PostComposer } from '../components/post-composer.tsx';
import { Empty, ErrorNotice, Loading } from '../components/states.tsx';
import { NotAllowed } from './not-allowed.tsx';
import '../styles/posts.css';

/** A new draft in the channel the address names (`/posts/new?channel=…`), then its own page. */
export function PostNewPage() {
  const admin = useAdmin();
  const channels = useChannels();
  const [search] = useSearchParams();
  const channelId = search.get('channel') ?? '';
  if (!can(admin, 'posts.write')) return <NotAllowed what="write posts" />;
  const channel = channels.data?.items.find((item) => item.id === channelId);
  if (channel === undefined) {
    if (channels.isPending) return <Loading what="the channel" />;
    if (channels.isError) return <ErrorNotice error={channels.error} />;
    return (
      <>
        <PageHeading>New post</PageHeading>
        <Empty>
          <p>
            A post belongs to a channel: <Link to="/posts">choose one in the posts</Link>, then “New post”.
          </p>
        </Empty>
      </>
    );
  }
  return <NewPost channelId={channel.id} channelTitle={channel.title} />;
}

function NewPost({ channelId, channelTitle }: { readonly channelId: string; readonly channelTitle: string }) {
  const save = useSavePost();
  const navigate = useNavigate();
  // One key for this form until the server confirms: a second submit cannot draft a second post.
  const [key] = useState(newIdempotencyKey);
  // A draft saved whose media was refused: the next save edits it instead of drafting another.
  const [created, setCreated] = useState<AdminPost | null>(null);
  return (
    <>
      <PageHeading>New post</PageHeading>
      <p className="lead">
        In <strong>{channelTitle}</strong>. It is saved as a draft; publish or schedule it from its page.
      </p>
      <PostComposer
        post={created}
        submitLabel="Save draft"
        pending={save.isPending}
        error={save.error}
        onRemoveAttachment={null}
        onSubmit={({ content, files, onUploaded }) => {
          const changes = created === null ? content : changesOf(created, content);
          save.mutate(
            { post: created, channelId, content: changes, files, key, onUploaded },
            {
              onSuccess: (post) => {
                void navigate(`/posts/${post.id}`, { state: { created: true } });
              },
              onError: (error) => {
                if (error instanceof UploadRefused) setCreated(error.post);
              },
            },
          );
        }}
      />
    </>
  );
}
