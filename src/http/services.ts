import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { AdminSessions } from '../auth/admin-sessions.ts';
import type { AdminTokens } from '../auth/admin-tokens.ts';
import type { ChatDeps } from '../chat/conversations.ts';
import type { UnreadDeps } from '../chat/unread.ts';
import type { CommentPostingPorts } from '../commands/comment-posting.ts';
import type { PostMediaPorts } from '../commands/posts.ts';
import type { ResolvedConfig } from '../config.ts';
import type { DatabasePool } from '../db/pool.ts';
import type { EventStore } from '../events/store/port.ts';
import type { UploadCaps } from '../files/inspect.ts';
import type { IntercomSandbox } from '../integrations/intercom/sandbox/index.ts';
import type { LoginThrottle } from '../integrations/rate-limiters/login-throttle.ts';
import type { ObjectStorage } from '../integrations/storage/port.ts';
import type { ProjectionWaiter } from '../projections/progress.ts';
import type { ReadChanges } from '../projections/changes.ts';
import type { Presence } from '../push/presence.ts';
import type { PushBroadcaster } from '../push/queue-dispatcher.ts';
import type { MediaLinks } from './media-links.ts';
import type { PollPace } from './poll-pace.ts';
import type { ReadinessCheck } from './routes/health.ts';

/** What the routes use of the support services that wiring/support.ts starts. */
export interface SupportParts extends Pick<ChatDeps, 'intercom' | 'contacts' | 'cache' | 'reads'> {
  /** Verifies `X-Hub-Signature`; null when none is configured, and then every webhook is refused. */
  readonly webhookSecret: string | null;
  /** The loopback stand-in for Intercom (never in production), which devtools drive. */
  readonly sandbox: IntercomSandbox | null;
  /** Told after each stored webhook, so this replica's worker processes it at once. */
  readonly inbox: { wake(): void };
  /** The service's own address, once it listens: the base of attachment links when PUBLIC_BASE_URL is unset. */
  serviceUrl(): string;
}

/**
 * The one dependency object of the routes, on `app.services`: what the routes need, declared here and
 * made by the composition (src/wiring/app.ts); every route plugin reads it, so nothing is handed down
 * from plugin to plugin.
 */
export interface HttpServices {
  readonly config: ResolvedConfig;
  readonly pool: DatabasePool;
  readonly logger: Logger;
  readonly redis?: Redis | undefined;
  readonly store: EventStore;
  readonly waiter: ProjectionWaiter;
  /** Where uploaded file bytes go. */
  readonly storage: ObjectStorage;
  /** What /health/ready looks at in this process (its roles decide). */
  readonly readiness: readonly ReadinessCheck[];
  /** Intercom (or its sandbox), the read cache, the contact mapping and the webhook inbox. */
  readonly support: SupportParts;
  /** Upload caps: bytes per kind (MAX_*_MB) and the image pixel cap (MAX_IMAGE_PIXELS). */
  readonly uploadCaps: UploadCaps;
  /** What the poll caches key on: the scopes each projection batch changed (decision 022). */
  readonly changes: ReadChanges;
  /** How fast clients are asked to poll: slower while this process is overloaded. */
  readonly pace: PollPace;
  /** The support chat's reads and writes (and the channels' unread counts, for the badges). */
  readonly chat: ChatDeps & UnreadDeps;
  /** Signed links to post media and comment pictures, which clients load with no session. */
  readonly media: MediaLinks;
  readonly commentPosting: CommentPostingPorts;
  /** Keys the digest of a device's hardware id (decision 047): the raw id is never kept or sent. */
  readonly hardwareIdKey: string;
  /** Who is polling (a chat or ticket push waits for them), and pushes to many (system notices). */
  readonly push: { readonly presence: Presence; readonly broadcaster: PushBroadcaster };
  readonly postMedia: PostMediaPorts;
  readonly admin: {
    readonly tokens: AdminTokens;
    readonly sessions: AdminSessions;
    readonly throttle: LoginThrottle;
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    readonly services: HttpServices;
  }
}
