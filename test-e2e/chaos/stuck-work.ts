/**
 * What stuck work waits for, said from the platform's own answers: the HA groups' slots and
 * their holders and the service rollouts (the agbot), each host's phase and the unanswered asks
 * of a session, and each agent's workloads and last step. Printed when the chaos run finds work that stopped moving.
 */
import { type SimulatedFleet } from '@careen/agent/src/index';
import { type WorkItem } from './chaos-work';
import { type Call } from './steady-client';

export async function whyStuck(
  stuck: readonly WorkItem[],
  agbot: Call,
  org: string,
  fleet: SimulatedFleet,
): Promise<string[]> {
  const lines: string[] = [];
  const groups = await agbot('GET', `/v1/orgs/${org}/upgrade-groups`);
  lines.push(`HA-group slots of ${org}: ${JSON.stringify(groups.body)}`);
  const holders = await agbot('GET', `/v1/orgs/${org}/upgrades`);
  lines.push(`slot holders of ${org}: ${JSON.stringify(holders.body)}`);
  for (const item of stuck.filter((each) => each.session)) {
    const { session } = item;
    lines.push(
      `session ${item.id}: hosts ${JSON.stringify(session!.hosts)}; asks pending ${JSON.stringify(
        session!.projects.flatMap((project) => project.asks.filter((ask) => ask.answer === 'pending')),
      )}; last entries ${JSON.stringify(session!.timeline.slice(-5))}`,
    );
  }
  const rollouts = await agbot('GET', `/v1/orgs/${org}/rollouts`);
  lines.push(`service rollouts of ${org}: ${JSON.stringify(rollouts.body)}`);
  lines.push(
    `workloads of each agent: ${fleet.agents
      .map(
        (agent) =>
          `${agent.node} ${agent.runtime
            .actual()
            .map((workload) => `${workload.deploymentPolicy}@${workload.service.version}`)
            .join(',')}`,
      )
      .join('; ')}`,
  );
  const last = new Map(fleet.timeline.map((entry) => [entry.node, entry]));
  lines.push(
    `last step of each agent: ${[...last.values()]
      .map(
        (entry) =>
          `${entry.node} ${entry.nmp} ${entry.status} ${entry.version ?? ''} ${entry.at.toISOString()}`,
      )
      .join('; ')}`,
  );
  return lines;
}
