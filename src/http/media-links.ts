import { fileLinkExpiry, type MediaLinkTokens } from '../files/signed-urls.ts';

/**
 * The signed links clients load post media and comment pictures from, with no session (`<img src>`,
 * `<video src>`): relative, like every link in the API, and resolved by the SDK against the service's
 * address (decision 033). The token is the file link's (decision 013), bound to the storage key.
 */
export interface MediaLinks {
  /** The period links are minted for now; answers made within it share their links. */
  period(): number;
  /** `/files/posts/<postId>/<attachmentId>?t=…` */
  postMedia(
    period: number,
    media: { readonly postId: string; readonly id: string; readonly storageKey: string },
  ): string;
  /** `/files/comments/<commentId>?t=…` */
  commentImage(period: number, comment: { readonly id: string; readonly storageKey: string }): string;
  /** Whether a token opens that object now. */
  verify(storageKey: string, token: string | undefined): boolean;
  /**
   * `Cache-Control` for the bytes behind a verified link: what is at a link never changes, so a private
   * cache may keep it, as long as the link lives and no longer.
   */
  cacheControl(token: string): string;
}

export function mediaLinks(tokens: MediaLinkTokens): MediaLinks {
  // The token's characters (digits, `.`, base64url) need no escaping in a query.
  const t = (period: number, storageKey: string) => tokens.token(period, storageKey);
  return {
    period: () => tokens.period(),
    postMedia: (period, media) => `/files/posts/${media.postId}/${media.id}?t=${t(period, media.storageKey)}`,
    commentImage: (period, comment) => `/files/comments/${comment.id}?t=${t(period, comment.storageKey)}`,
    verify: (storageKey, token) => tokens.verify(storageKey, token),
    cacheControl(token) {
      const expiresAt = fileLinkExpiry(token) ?? 0;
      const left = Math.max(0, expiresAt - Math.ceil(tokens.now().getTime() / 1000));
      return `private, max-age=${left}, immutable`;
    },
  };
}
