/** Delay before redelivery attempt `deliveryCount + 1`: the schedule's entry, the last one repeating. */
export function retryDelayMs(schedule: readonly number[], deliveryCount: number): number {
  if (schedule.length === 0) return 0;
  return schedule[Math.min(deliveryCount - 1, schedule.length - 1)] ?? 0;
}
