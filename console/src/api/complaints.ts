import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Schemas } from './client.ts';
import { usePolledQuery } from './poll.ts';
import { unwrap } from './problem.ts';

export type Complaint = Schemas['AdminComplaint'];
export type ComplaintDetail = Schemas['AdminComplaintDetail'];
export type ComplaintStatus = Complaint['status'];

export const COMPLAINT_STATUSES: readonly ComplaintStatus[] = ['open', 'resolved'];

/** How many of the newest complaints the queue shows. */
export const QUEUE_SIZE = 100;

const complaintKey = (id: string) => ['complaint', id] as const;

/** The queue, newest first, of one status or of every status; it polls, so a new complaint shows up. */
export function useComplaints(status: ComplaintStatus | null) {
  return usePolledQuery(['complaints', status], (headers) =>
    api.GET('/admin/complaints', {
      params: { query: { limit: QUEUE_SIZE, ...(status === null ? {} : { status }) } },
      headers,
    }),
  );
}

/** One complaint whole: its text, targets, attachments and resolution. */
export function useComplaint(id: string) {
  return useQuery({
    queryKey: complaintKey(id),
    queryFn: async () => unwrap(await api.GET('/admin/complaints/{id}', { params: { path: { id } } })),
  });
}

/** Resolves a complaint; the page shows what the server answered, and the queue is read again. */
export function useResolveComplaint(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async ({ note, key }: { note: string; key: string }) =>
      unwrap(
        await api.POST('/admin/complaints/{id}/resolve', {
          params: { path: { id }, header: { 'idempotency-key': key } },
          body: note.trim() === '' ? {} : { note },
        }),
      ),
    onSuccess: async (detail) => {
      client.setQueryData(complaintKey(id), detail);
      await client.invalidateQueries({ queryKey: ['complaints'] });
    },
  });
}
