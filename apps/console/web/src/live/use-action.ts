/** An action a person starts from a view: one at a time, with its refusal kept to show. */
import { useCallback, useState } from 'react';
import { ApiProblem } from '../api/problem';

export interface Action {
  busy: boolean;
  problem: ApiProblem | undefined;
  /** Runs `act`; true when it succeeded. */
  run: (act: () => Promise<unknown>) => Promise<boolean>;
}

export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<ApiProblem>();
  const run = useCallback(async (act: () => Promise<unknown>) => {
    setBusy(true);
    setProblem(undefined);
    try {
      await act();
      return true;
    } catch (error) {
      setProblem(
        error instanceof ApiProblem ? error : new ApiProblem(0, (error as Error).message, 'UNKNOWN'),
      );
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, problem, run };
}
