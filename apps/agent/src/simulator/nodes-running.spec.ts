import { SimulatedRuntime } from '../workloads/simulated-runtime';
import { nodesRunning } from './nodes-running';

describe('nodesRunning', () => {
  const web = { deploymentPolicy: 'web', service: { org: 'demo', url: 'web', version: '1.0.0' } };
  const agents = () =>
    ['demo-0001', 'demo-0002', 'demo-0003'].map((node) => ({ node, runtime: new SimulatedRuntime() }));

  it('names the nodes that run the policy once as many as asked for do', async () => {
    const fleet = agents();
    const waiting = nodesRunning(fleet, 'web', 2, { timeoutMs: 30_000 });
    await fleet[2]!.runtime.apply([web]);
    await fleet[0]!.runtime.apply([web]);
    await expect(waiting).resolves.toEqual(['demo-0001', 'demo-0003']);
  });

  it('ends as soon as its signal aborts, with the nodes that run the policy by then', async () => {
    const fleet = agents();
    await fleet[1]!.runtime.apply([web]);
    const stop = new AbortController();
    const waiting = nodesRunning(fleet, 'web', 3, { timeoutMs: 30_000, signal: stop.signal });
    stop.abort('SIGINT');
    // Without the signal it would wait half a minute, past this test's timeout.
    await expect(waiting).resolves.toEqual(['demo-0002']);
  });

  it('answers with fewer nodes once its time is up', async () => {
    const fleet = agents();
    await fleet[0]!.runtime.apply([web]);
    await expect(nodesRunning(fleet, 'web', 3, { timeoutMs: 0 })).resolves.toEqual(['demo-0001']);
  });
});
