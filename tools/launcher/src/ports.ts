/** Ports the launcher listens on, each with the variable that moves it. */
import { isPortFree } from '@careen/devstack';
import { LauncherError } from './launcher-error';

export interface PortClaim {
  owner: string;
  envVar: string;
  port: number;
}

export function portFromEnv(env: NodeJS.ProcessEnv, envVar: string, fallback: number): number {
  const raw = env[envVar];
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new LauncherError(`${envVar}=${raw} is not a TCP port (1-65535).`);
  }
  return port;
}

/** Fails with one message naming every port that is taken or claimed twice. */
export async function assertPortsFree(
  claims: readonly PortClaim[],
  hints: Partial<Record<string, string>> = {},
) {
  const problems: string[] = [];
  const seen = new Map<number, PortClaim>();
  for (const claim of claims) {
    const earlier = seen.get(claim.port);
    if (earlier)
      problems.push(`${earlier.envVar} and ${claim.envVar} both use port ${claim.port}; change one of them.`);
    else seen.set(claim.port, claim);
  }
  for (const claim of seen.values()) {
    if (await isPortFree(claim.port)) continue;
    const hint = hints[claim.envVar];
    problems.push(
      `port ${claim.port} (${claim.owner}) is already in use; stop what holds it or set ${claim.envVar} to another port.` +
        (hint ? ` ${hint}` : ''),
    );
  }
  if (problems.length > 0) throw new LauncherError(problems.join('\n'));
}
