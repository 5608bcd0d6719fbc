/** How a deploy check's answer reads in a terminal: a summary line, node verdicts, group verdicts. */
import { type Agbot } from '@careen/api-client';
import { type Column, formatColumns } from '../output/output';

type Schemas = Agbot.components['schemas'];
export type DeployCheckAnswer = Schemas['DeployCheckResponse'];
export type NodeVerdictAnswer = Schemas['DeployCheckNodeResponse'];
export type GroupVerdictAnswer = Schemas['DeployCheckGroupResponse'];

const NODE_COLUMNS: readonly Column<NodeVerdictAnswer>[] = [
  { header: 'NODE', value: (node) => node.node },
  { header: 'HA GROUP', value: (node) => node.haGroup },
  { header: 'VERDICT', value: verdictOf },
  { header: 'VERSION', value: (node) => node.version },
  { header: 'REASONS', value: (node) => node.reasons.join('; ') },
];

const GROUP_COLUMNS: readonly Column<GroupVerdictAnswer>[] = [
  { header: 'HA GROUP', value: (group) => group.haGroup },
  { header: 'AVAILABLE', value: (group) => yesNo(group.available) },
  { header: 'DURING UPGRADE', value: (group) => yesNo(group.staysAvailableDuringUpgrade) },
  { header: 'RUNS ON', value: (group) => `${group.deployableMembers.length}/${group.members.length}` },
  { header: 'REASON', value: (group) => group.reason },
];

export function verdictOf(node: NodeVerdictAnswer): string {
  if (node.deployable) return 'deployable';
  return node.compatible ? 'compatible, unavailable' : 'incompatible';
}

export function formatDeployCheck(answer: DeployCheckAnswer): string {
  const { service } = answer;
  const subject = answer.deploymentPolicy
    ? `deployment policy ${answer.org}/${answer.deploymentPolicy} (service ${service.org}/${service.url}${service.version ? ` ${service.version}` : ''})`
    : `service ${service.org}/${service.url}${service.version ? ` ${service.version}` : ''}`;
  const { summary } = answer;
  let text =
    `${subject}: ${answer.compatible ? 'compatible' : 'not compatible'} — ` +
    `${summary.compatible} of ${summary.nodes} node(s) compatible, ${summary.deployable} deployable now\n`;
  if (answer.nodes.length > 0) text += `\n${formatColumns(NODE_COLUMNS, answer.nodes)}`;
  if (answer.haGroups !== undefined) {
    text +=
      answer.haGroups.length === 0
        ? '\nno HA group among the nodes checked\n'
        : `\n${formatColumns(GROUP_COLUMNS, answer.haGroups)}`;
  }
  return text;
}

function yesNo(value: boolean): string {
  return value ? 'yes' : 'no';
}
