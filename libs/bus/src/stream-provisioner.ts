/**
 * Creates or updates the streams a service uses. Safe to run from every replica at once:
 * a lost creation race is resolved by reading the stream that won.
 */
import { JetStreamApiCodes, JetStreamApiError, StorageType, type JetStreamManager } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import { retryTransient } from './jetstream-retry';

export interface StreamSpec {
  name: string;
  subjects: readonly string[];
  /** Republished messages with the same Nats-Msg-Id inside this window are dropped. */
  duplicateWindowMs?: number;
  /** Limits the stream is created with; on an existing stream, only a missing one is filled in. */
  maxAgeMs?: number;
  maxBytes?: number;
  replicas?: number;
}

const DEFAULT_DUPLICATE_WINDOW_MS = 10 * 60_000;
/**
 * What JetStream answers the replica that lost a creation race: "stream name already in use",
 * or, on a cluster, sometimes "subjects overlap with an existing stream" (the winner's). When
 * no stream of that name exists, the overlap is another stream's, and reading it says so.
 */
const LOST_CREATION_RACE = new Set([10058, 10065]);
/** JetStream's "no limit" for max_bytes. */
const UNLIMITED_BYTES = -1;

export async function ensureStreams(jsm: JetStreamManager, specs: readonly StreamSpec[]): Promise<void> {
  // A stream another replica is creating on a cluster may not answer until its leader is elected.
  for (const spec of specs) await retryTransient(() => ensureStream(jsm, spec));
}

async function ensureStream(jsm: JetStreamManager, spec: StreamSpec): Promise<void> {
  const wanted = {
    name: spec.name,
    subjects: [...spec.subjects],
    storage: StorageType.File,
    duplicate_window: nanos(spec.duplicateWindowMs ?? DEFAULT_DUPLICATE_WINDOW_MS),
    max_age: nanos(spec.maxAgeMs ?? 0),
    max_bytes: spec.maxBytes ?? UNLIMITED_BYTES,
  };
  const existing = await streamInfo(jsm, spec.name);
  if (!existing) {
    try {
      // Replicas are set at creation only; an operator may raise them later (R3) and an update must not undo that.
      await jsm.streams.add({ ...wanted, num_replicas: spec.replicas ?? 1 });
      return;
    } catch (error) {
      if (!(error instanceof JetStreamApiError && LOST_CREATION_RACE.has(error.code))) throw error;
    }
  }
  const current = existing ?? (await jsm.streams.info(spec.name)).config;
  const sameSubjects = [...current.subjects].sort().join() === [...wanted.subjects].sort().join();
  // An operator's own limits stay; a stream without one (created before limits) gets the default.
  const maxAge = current.max_age > 0 ? current.max_age : wanted.max_age;
  const maxBytes = current.max_bytes > 0 ? current.max_bytes : wanted.max_bytes;
  if (
    !sameSubjects ||
    current.duplicate_window !== wanted.duplicate_window ||
    current.max_age !== maxAge ||
    current.max_bytes !== maxBytes
  ) {
    await jsm.streams.update(spec.name, {
      subjects: wanted.subjects,
      duplicate_window: wanted.duplicate_window,
      max_age: maxAge,
      max_bytes: maxBytes,
    });
  }
}

async function streamInfo(jsm: JetStreamManager, name: string) {
  try {
    return (await jsm.streams.info(name)).config;
  } catch (error) {
    if (error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound)
      return undefined;
    throw error;
  }
}
