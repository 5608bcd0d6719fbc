/** Stream names and the subject space each one owns. Renaming one needs a migration plan. */
export const STREAMS = {
  changes: { name: 'CAREEN_CHANGES', subjects: ['careen.changes.>'] },
  maintenance: { name: 'CAREEN_MAINT', subjects: ['careen.maint.>'] },
  deadLetters: { name: 'CAREEN_DLQ', subjects: ['careen.dlq.>'] },
  agbot: { name: 'CAREEN_AGBOT', subjects: ['careen.agbot.>'] },
} as const;

export type StreamKey = keyof typeof STREAMS;

export function deadLetterSubject(service: string): string {
  return `careen.dlq.${service}`;
}
