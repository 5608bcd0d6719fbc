/**
 * Provides a nats-server binary: an explicit one, one in the state folder's bin/, one on PATH,
 * or, when running as root on a Debian-like system, the distribution's `nats-server` package.
 * Nothing is downloaded from anywhere else.
 */
import { findNatsServer, NATS_SERVER_INSTALL_HINT } from '@careen/devstack';
import { installDebianPackage } from './debian-package';
import { LauncherError } from './launcher-error';

export function ensureNatsServer(binDir: string, env: NodeJS.ProcessEnv): string {
  const explicitPath = env.CAREEN_NATS_SERVER_BIN;
  const find = () => findNatsServer({ explicitPath, extraDirs: [binDir], path: env.PATH });
  const found = find();
  if (found) return found;
  if (explicitPath)
    throw new LauncherError(`CAREEN_NATS_SERVER_BIN=${explicitPath} is not an executable file.`);
  installDebianPackage('nats-server', 'nats-server', NATS_SERVER_INSTALL_HINT, env);
  const installed = find();
  if (!installed)
    throw new LauncherError(
      `apt-get installed nats-server, yet it is not on PATH. ${NATS_SERVER_INSTALL_HINT}`,
    );
  return installed;
}
