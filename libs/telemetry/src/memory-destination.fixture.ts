/** Test fixture: a pino destination that keeps written lines in memory; specs only. */
import { type DestinationStream } from 'pino';

export interface MemoryDestination extends DestinationStream {
  readonly lines: string[];
  records(): Record<string, unknown>[];
}

export function memoryDestination(): MemoryDestination {
  const lines: string[] = [];
  return {
    lines,
    write: (chunk: string) => void lines.push(...chunk.split('\n').filter(Boolean)),
    records: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
