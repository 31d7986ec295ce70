import { z } from 'zod';
import { complaintStatusSchema } from '../../../events/complaints.ts';
import type { ComplaintSummary } from '../../../queries/complaints.ts';

/** API.md "CSAT, complaints, config": what a user sees of their own complaint (not its resolution note). */
export const myComplaintSchema = z
  .object({
    id: z.uuid(),
    reasonId: z.uuid(),
    status: complaintStatusSchema,
    createdAt: z.iso.datetime(),
    resolvedAt: z.iso.datetime().optional(),
  })
  .meta({ id: 'MyComplaint' });

export const myComplaintView = (complaint: ComplaintSummary): z.infer<typeof myComplaintSchema> => ({
  id: complaint.id,
  reasonId: complaint.reason.id,
  status: complaint.status,
  createdAt: complaint.createdAt,
  ...(complaint.resolvedAt === undefined ? {} : { resolvedAt: complaint.resolvedAt }),
});
