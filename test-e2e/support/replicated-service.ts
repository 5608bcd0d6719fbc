/**
 * A hub service run as several processes behind one address, as a Kubernetes Service puts
 * them: each replica on a port of its own, a round-robin proxy in front.
 */
import { freePort, HUB_SERVICES } from '@careen/devstack';
import { startTcpProxy, type TcpProxy } from '@careen/testing';
import { KillableService } from './killable-service';

export interface ReplicatedService {
  name: string;
  replicas: KillableService[];
  /** The one address its clients use. */
  proxy: TcpProxy;
}

/**
 * Starts `count` replicas of `name` with `env` (its own port is added) and a proxy in front.
 * `created` learns of the replicas before they start, so that a caller can kill them at the
 * end even if one does not start.
 */
export async function startReplicated(
  name: string,
  count: number,
  env: () => Record<string, string>,
  created: (replicas: KillableService[]) => void = () => undefined,
): Promise<ReplicatedService> {
  const portEnv = HUB_SERVICES.find((service) => service.name === name)!.portEnv;
  const replicas: KillableService[] = [];
  for (let index = 0; index < count; index++) {
    const replica: KillableService = new KillableService(name, await freePort(), () => ({
      ...env(),
      [portEnv]: String(replica.port),
    }));
    replicas.push(replica);
  }
  created(replicas);
  await Promise.all(replicas.map((replica) => replica.start()));
  return { name, replicas, proxy: await startTcpProxy(replicas.map((replica) => replica.port)) };
}
