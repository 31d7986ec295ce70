import { type ComplaintNotesPort, complaintNotesProcessor } from './complaint-notes.ts';
import { type ContactTelemetryPort, contactTelemetryProcessor } from './contact-telemetry.ts';
import { type CsatNotesPort, csatNotesProcessor } from './csat-notes.ts';
import { type BroadcastPort, postPushesProcessor } from './post-pushes.ts';
import type { Processor } from './processor.ts';

/** What the processors' side effects go through; the wiring fills it. */
export interface ProcessorPorts {
  /** Queues a push to many (src/push's broadcaster). */
  readonly broadcast: BroadcastPort;
  /** A note and a tag at Intercom on a rated conversation or ticket. */
  readonly csatNotes: CsatNotesPort;
  /** A note at Intercom on the contact of a user who filed a complaint. */
  readonly complaintNotes: ComplaintNotesPort;
  /** A device's telemetry on the user's contact at Intercom. */
  readonly contactTelemetry: ContactTelemetryPort;
}

/**
 * Every processor the service runs: the push of a post published with `notify`, the best-effort notes at
 * Intercom for ratings and complaints (spec rule 3), and devices' telemetry on the users' contacts.
 */
export const allProcessors = (ports: ProcessorPorts): readonly Processor[] => [
  postPushesProcessor(ports.broadcast),
  csatNotesProcessor(ports.csatNotes),
  complaintNotesProcessor(ports.complaintNotes),
  contactTelemetryProcessor(ports.contactTelemetry),
];
