import { useState } from 'react';
import { Link, useLocation, useParams } from 'react-router';
import {
  type AdminPost,
  type PostMove,
  useMovePost,
  usePost,
  useRemoveAttachment,
  useSavePost,
} from '../api/posts.ts';
import { can } from '../api/session.ts';
import { formatDateTime } from '../components/format.ts';
import { useAdmin } from '../components/layout.tsx';
import { forgetPreview } from '../components/media-picker.tsx';
import { PageHeading } from '../components/page-heading.tsx';
import { PostActions } from '../components/post-actions.tsx';
import { changesOf, PostComposer } from '../components/post-composer.tsx';
import { PostFacts } from '../components/post-facts.tsx';
import { Done, ErrorNotice, Loading } from '../components/states.tsx';
import { NotAllowed } from './not-allowed.tsx';
import '../styles/posts.css';

/** A post's page (`/posts/:postId`): its content, its media and its lifecycle. */
export function PostEditPage() {
  const admin = useAdmin();
  const { postId = '' } = useParams();
  const post = usePost(postId);
  if (!can(admin, 'posts.write')) return <NotAllowed what="write posts" />;
  if (post.data === undefined) {
    return post.isError ? <ErrorNotice error={post.error} /> : <Loading what="the post" />;
  }
  if (post.data === null) return <NoSuchPost />;
  return <PostEditor post={post.data} channelId={post.data.channelId} />;
}

export function NoSuchPost() {
  return (
    <>
      <PageHeading>No such post</PageHeading>
      <p>
        It may have been deleted for good, or the address is wrong. <Link to="/posts">Go to the posts</Link>.
      </p>
    </>
  );
}

function doneOf(move: PostMove, post: AdminPost): string {
  switch (move.type) {
    case 'schedule':
      return `Scheduled for ${formatDateTime(post.publishAt ?? move.publishAt)}.`;
    case 'publish':
      return move.notify ? 'Published. The push notification is on its way.' : 'Published.';
    case 'unschedule':
      return 'Unscheduled: the post is a draft again.';
    case 'hide':
      return 'Hidden from readers.';
    case 'unhide':
      return 'Shown to readers again.';
    case 'delete':
      return 'Post deleted.';
  }
}

function PostEditor({ post, channelId }: { readonly post: AdminPost; readonly channelId: string }) {
  const admin = useAdmin();
  const save = useSavePost();
  const remove = useRemoveAttachment(post.id);
  const moves = useMovePost(post.id);
  const created = (useLocation().state as { created?: boolean } | null)?.created === true;
  const [notice, setNotice] = useState<string | null>(created ? 'Draft saved.' : null);
  const [dirty, setDirty] = useState(false);
  // A new form after each save: it starts again from the post as the server answered it.
  const [generation, setGeneration] = useState(0);
  const deleted = post.status === 'deleted';
  const stats = `/posts/${post.id}/stats`;
  return (
    <>
      <PageHeading>{deleted ? 'Deleted post' : 'Edit post'}</PageHeading>
      {notice === null ? null : <Done>{notice}</Done>}
      <PostFacts post={post} />
      <p>
        <Link to={stats}>Stats of this post</Link> · <Link to={`/posts?channel=${channelId}`}>All posts</Link>
      </p>
      {deleted ? (
        <p className="post-text">{post.text}</p>
      ) : (
        <div className="post-layout">
          <PostComposer
            key={generation}
            post={post}
            submitLabel="Save changes"
            pending={save.isPending}
            error={save.error ?? remove.error}
            onDirtyChange={setDirty}
            onRemoveAttachment={(attachmentId) => {
              setNotice(null);
              remove.mutate(attachmentId, {
                onSuccess: () => {
                  forgetPreview(attachmentId);
                  setNotice('Attachment removed.');
                },
              });
            }}
            removing={remove.isPending}
            onSubmit={({ content, files, onUploaded }) => {
              setNotice(null);
              remove.reset();
              const changes = changesOf(post, content);
              if (changes === null && files.length === 0) {
                setNotice('Nothing to save: nothing was changed.');
                return;
              }
              save.mutate(
                { post, channelId, content: changes, files, key: '', onUploaded },
                {
                  onSuccess: () => {
                    setGeneration((n) => n + 1);
                    setNotice('Saved.');
                  },
                },
              );
            }}
          />
          {can(admin, 'posts.publish') ? (
            <PostActions
              key={post.status}
              post={post}
              pending={moves.isPending}
              last={moves.variables}
              error={moves.error}
              blocked={dirty ? 'Save your changes first: publishing uses the post as saved.' : null}
              onMove={(move) => {
                setNotice(null);
                moves.mutate(move, {
                  onSuccess: (moved) => {
                    setNotice(doneOf(move, moved));
                  },
                });
              }}
            />
          ) : null}
        </div>
      )}
    </>
  );
}
