/**
 * `careen audit [--since …] [--actor …] [--target …]` and `careen audit verify`: an org's audit
 * trail, oldest first, and a check of its hash chain (exit 1 when it is broken).
 */
import { type Exchange } from '@careen/api-client';
import { type Command, InvalidArgumentError } from 'commander';
import { CliError } from '../cli-errors';
import { type Column } from '../output/output';
import { orgCommandContext, type CliServices } from './command-context';
import { wholeNumber } from './whole-number';

type AuditRecord = Exchange.components['schemas']['AuditRecordResponse'];

const COLUMNS: readonly Column<AuditRecord>[] = [
  { header: 'SEQ', value: (record) => record.seq },
  { header: 'AT', value: (record) => record.at },
  { header: 'ACTOR', value: (record) => record.actor },
  { header: 'VIA', value: (record) => record.via ?? '' },
  { header: 'ACTION', value: (record) => record.action },
  { header: 'TARGET', value: (record) => record.target },
  { header: 'SOURCE', value: (record) => record.source ?? '' },
];

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
/** Most records one page of the exchange answers. */
const PAGE = 1000;

/** `30m`, `2h`, `7d` ago, or an ISO 8601 instant, as an ISO instant. */
export function instantArgument(now: () => Date) {
  return (value: string): string => {
    const relative = /^(\d+)([smhd])$/.exec(value);
    if (relative) return new Date(now().getTime() - Number(relative[1]) * UNITS[relative[2]!]!).toISOString();
    if (/^\d{4}-\d{2}-\d{2}/.test(value) && !Number.isNaN(Date.parse(value)))
      return new Date(value).toISOString();
    throw new InvalidArgumentError('a time ago (30m, 2h, 7d) or an ISO 8601 instant (2026-12-06T10:00:00Z)');
  };
}

interface AuditOptions {
  since?: string;
  until?: string;
  actor?: string;
  target?: string;
  action?: string;
  limit: number;
  org?: string;
}

export function registerAuditCommands(program: Command, services: CliServices): void {
  const instant = instantArgument(services.now);
  const audit = program
    .command('audit')
    .description("an org's audit trail, oldest first: who changed what, when, from where (org admins)")
    .option('--since <when>', 'records from then on: 30m, 2h, 7d ago, or an ISO 8601 instant', instant)
    .option('--until <when>', 'records before then', instant)
    .option('--actor <actor>', 'who acted: org/user, org/sa:account, org/node, careen:<service>')
    .option('--target <target>', 'what was acted on, e.g. managementPolicy/web or session/<id>')
    .option('--action <action>', 'what was done, e.g. managementPolicy.paused')
    .option('--limit <n>', 'at most this many records (1-100000, default 100)', wholeNumber(1, 100_000), 100)
    .option('--org <org>', 'org of the trail (default: CAREEN_ORG, else your own org)')
    .action(async (options: AuditOptions, command: Command) => {
      const { context, exchange, org } = await orgCommandContext(command, services, options.org);
      const items: AuditRecord[] = [];
      let total = 0;
      let after: number | undefined;
      do {
        const page = await exchange((api) =>
          api.GET('/v1/orgs/{org}/audit', {
            params: {
              path: { org },
              query: {
                since: options.since,
                until: options.until,
                actor: options.actor,
                target: options.target,
                action: options.action,
                after,
                limit: Math.min(PAGE, options.limit - items.length),
              },
            },
          }),
        );
        items.push(...page.items);
        total = page.total;
        after = page.next ?? undefined;
      } while (after !== undefined && items.length < options.limit);
      context.printer.list({ items, total }, COLUMNS, `no audit records in org "${org}" match`);
      if (items.length < total) context.printer.note(`${items.length} of ${total}; --limit shows more`);
    });

  audit
    .command('verify')
    .description("recompute the org's hash chain; exit 1 and name the first record that breaks it")
    .option('--org <org>', 'org of the trail (default: CAREEN_ORG, else your own org)')
    .action(async (options: { org?: string }, command: Command) => {
      const { context, exchange, org } = await orgCommandContext(command, services, options.org);
      const verification = await exchange((api) =>
        api.GET('/v1/orgs/{org}/audit/verify', { params: { path: { org } } }),
      );
      const { broken, anchor, head, checked } = verification;
      if (broken)
        throw new CliError(
          `the audit trail of org "${org}" is broken at record ${broken.seq}${broken.eventId ? ` (event ${broken.eventId})` : ''}: ${broken.problem}; ${checked} record(s) before it chain`,
        );
      context.printer.result(
        verification,
        `the audit trail of org "${org}" verifies: ${checked} record(s) from ${anchor.seq + 1} to ${head.seq}, head ${head.hash}`,
      );
    });
}
