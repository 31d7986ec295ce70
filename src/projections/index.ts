import { channelsProjection } from './channels.ts';
import { commentsProjection } from './comments.ts';
import { complaintsProjection } from './complaints.ts';
import { csatProjection } from './csat.ts';
import { devicesProjection } from './devices.ts';
import { clicksProjection, readsProjection } from './interactions.ts';
import { moderationProjection } from './moderation.ts';
import { postsProjection } from './posts.ts';
import { reactionsProjection } from './reactions.ts';
import type { Projection } from './projection.ts';

/** Every projection the service runs; `projections rebuild <name>` picks from these. */
export const allProjections: readonly Projection[] = [
  devicesProjection,
  channelsProjection,
  postsProjection,
  reactionsProjection,
  clicksProjection,
  readsProjection,
  commentsProjection,
  moderationProjection,
  complaintsProjection,
  csatProjection,
];

export function projectionNamed(name: string): Projection | undefined {
  return allProjections.find((p) => p.name === name);
}
