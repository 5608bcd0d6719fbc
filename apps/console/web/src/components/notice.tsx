/** A line that tells the person what is going on and, for a problem, what to do about it. */
import type { ReactNode } from 'react';
import { ApiProblem } from '../api/problem';

export function ProblemNotice({ error, what }: { error: Error; what: string }) {
  return (
    <div className="notice notice-error" role="alert">
      <strong>Could not {what}.</strong> {error.message} {adviceFor(error)}
    </div>
  );
}

export function Empty({ children }: { children: ReactNode }) {
  return <div className="notice notice-empty">{children}</div>;
}

export function Loading({ what }: { what: string }) {
  return (
    <div className="notice" role="status" aria-live="polite">
      Loading {what}…
    </div>
  );
}

function adviceFor(error: Error): string {
  if (!(error instanceof ApiProblem)) return '';
  if (error.status === 0 || error.status >= 502) return 'The view tries again by itself.';
  if (error.status === 403) return 'Your role does not allow this; ask an org admin.';
  if (error.status === 404) return 'It may have been removed; go back to the list.';
  return '';
}
