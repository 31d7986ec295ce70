import { adminCall } from './admin.ts';

export type PostStep = 'schedule' | 'publish' | 'hide' | 'unhide' | 'delete';

/**
 * A fresh post in a channel, drafted with `draft` and moved through `steps` by the admin whose token is
 * given: each test gets a post in the state it needs. Throws when a step is refused.
 */
export async function postThrough(
  url: string,
  adminToken: string,
  channelId: string,
  steps: readonly PostStep[],
  draft: Record<string, unknown> = { text: 'A post' },
): Promise<string> {
  const made = await adminCall(url, adminToken, 'POST', `/admin/channels/${channelId}/posts`, draft);
  const id = (made.body as { id: string }).id;
  for (const step of steps) {
    const body =
      step === 'schedule'
        ? { publishAt: new Date(Date.now() + 3600_000).toISOString() }
        : step === 'publish'
          ? {}
          : undefined;
    const moved =
      step === 'delete'
        ? await adminCall(url, adminToken, 'DELETE', `/admin/posts/${id}`)
        : await adminCall(url, adminToken, 'POST', `/admin/posts/${id}/${step}`, body);
    if (moved.status !== 200) throw new Error(`${step}: ${moved.status} ${JSON.stringify(moved.body)}`);
  }
  return id;
}
