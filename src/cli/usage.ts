import { roles } from '../auth/permissions.ts';

// What each command takes, apart from the commands themselves: `--help` prints it without loading them.

export const migrateUsage = `  migrate                      apply pending migrations (DATABASE_URL, else the embedded database,
                               the running service's if there is one)`;

export const devTokenUsage = `  dev-token [--user ID] [--ttl SECONDS]
                               print a client session JWT signed with JWT_SECRET (not in production)`;

export const adminsUsage = `  admins create --email E --role R [--name N] [--generate-password]
                               create an admin (roles: ${roles.join(', ')}); the password is asked
                               for (hidden) on a terminal, read from stdin's first line otherwise,
                               or generated and printed with --generate-password
  admins set-password --email E [--generate-password]
                               set an admin's password (ends that admin's sessions)
  admins list                  every admin account`;

export const moderationUsage = `  moderation replay --channel <id> [--as-of <ISO time>]
                               a channel's comments, bans and comment moderators as they stood
                               at that instant (now by default), rebuilt from the event store alone`;

export const projectionsUsage = `  projections status           each projection's live generation, position and state
  projections resume <name>    let a failed projection try its failed event again (after a fix)
  projections rebuild <name>   refill <name>'s read tables from the start of the log into a new
                               generation, then switch the service over to it (\`projections status\`
                               names them)`;

export const intercomSandboxUsage = `  intercom-sandbox [--port N] [--webhook-url URL]
                               run the Intercom sandbox as a process of its own (not in production;
                               port 3100, webhooks to this PORT's /webhooks/support by default), its
                               records under DATA_DIR, so several replicas share one; prints their settings`;

export const pushFakesUsage = `  push-fakes [--fcm-port N] [--telegram-port N]
                               run loopback stand-ins for FCM and the Telegram Bot API (not in
                               production) and print the settings that send the service's pushes there`;

export const privacyUsage = `  users erase <userId> [--no-wait] [--timeout SECONDS]
                               erase a user (decision 048) as POST /admin/users/:userId/erasure does,
                               and follow it until the running service's erasure job has done it
  users erasure <userId>       how far the user's latest erasure got`;

export const eventsUsage = `  events seal                  seal in place the personal fields of events stored before sealing
                               began (PostgreSQL event store only); safe to stop and run again
  events copy --to <EVENTSTORE_URL> [--batch-size N]
                               copy the PostgreSQL event log into an empty KurrentDB (ids, revisions
                               and order kept, plain personal fields sealed on the way), then compare
                               both; safe to stop and run again (docs/operations.md)`;

export const dataKeysUsage = `  data-keys rewrap             after a rotation (DATA_KEY_SECRET new, DATA_KEY_SECRET_PREVIOUS the
                               old one), wrap every user's data key under the new secret`;
