import { z } from 'zod';
import type { ActionResult } from '../../../integrations/intercom/sandbox/index.ts';

// What the devtools' operator actions answer: the ids of what the sandbox made, and of the webhook it sent.

const notificationId = z
  .string()
  .describe("the webhook's notification id: a push it causes has it as `sourceId` in /api/devtools/pushes");

export const operatorActionSchema = z
  .object({
    partId: z.string().describe('the part the action added to the conversation or ticket'),
    notificationId,
  })
  .meta({ id: 'OperatorAction' });

export const operatorTicketSchema = z
  .object({ ticketId: z.string(), notificationId })
  .meta({ id: 'OperatorTicket' });

export const operatorActionView = (result: ActionResult): z.infer<typeof operatorActionSchema> => ({
  partId: result.id,
  notificationId: result.notificationId,
});

export const operatorTicketView = (result: ActionResult): z.infer<typeof operatorTicketSchema> => ({
  ticketId: result.id,
  notificationId: result.notificationId,
});
