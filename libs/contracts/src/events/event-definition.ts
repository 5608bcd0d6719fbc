/**
 * Ties a subject family to its payload class once, so that a publisher cannot send a payload
 * of the wrong shape on a subject and a consumer knows which class validates what it receives.
 */
export type PayloadClass<T extends object = object> = new () => T;

export interface EventDefinition<TPayload extends object, TSubjectArgs extends readonly string[]> {
  /** CloudEvents `type`: `careen.<service>.<event>`. */
  readonly type: string;
  /** The stream that stores this family. */
  readonly stream: string;
  /** Wildcard covering every subject of the family, for consumers. */
  readonly filter: string;
  /** The concrete subject of one event. */
  readonly subject: (...args: TSubjectArgs) => string;
  readonly payload: PayloadClass<TPayload>;
}

export type PayloadOf<E> = E extends EventDefinition<infer P, readonly string[]> ? P : never;

export function defineEvent<TPayload extends object, TSubjectArgs extends readonly string[]>(
  definition: EventDefinition<TPayload, TSubjectArgs>,
): EventDefinition<TPayload, TSubjectArgs> {
  return Object.freeze(definition);
}

/** Subject tokens may not contain separators or wildcards; org ids and names are checked against this. */
export const SUBJECT_TOKEN = /^[A-Za-z0-9_-][A-Za-z0-9_-]*$/;

export function subjectToken(value: string): string {
  if (!SUBJECT_TOKEN.test(value)) {
    throw new Error(`"${value}" cannot be used as a subject token`);
  }
  return value;
}
