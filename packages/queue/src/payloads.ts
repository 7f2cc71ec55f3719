import { z } from 'zod';

/** api → scheduler: recompute these endpoints' schedules now. */
export const scheduleChangePayload = z.object({
  endpointIds: z.array(z.string()).min(1),
  reason: z.string(),
});
export type ScheduleChangePayload = z.infer<typeof scheduleChangePayload>;
