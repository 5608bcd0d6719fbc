/** `careen deploycheck`: where a deployment policy or a service could run, asked of the agbot. */
import { type Agbot } from '@careen/api-client';
import { type Command, Option } from 'commander';
import { askService } from '../http/service-url';
import { formatJson } from '../output/output';
import { type CliServices, orgCommandContext } from './command-context';
import { type DeployCheckOptions, deployCheckBody, resolveAgbotUrl } from './deploycheck-request';
import { formatDeployCheck } from './deploycheck-report';

interface Options extends DeployCheckOptions {
  org?: string;
  agbotUrl?: string;
}

export function registerDeployCheckCommands(program: Command, services: CliServices): void {
  program
    .command('deploycheck')
    .description(
      'check which nodes a deployment policy or a service could run on, and whether HA groups stay available',
    )
    .option('--policy <name>', 'a deployment policy of the org')
    .option('--service <ref>', 'a service instead: [org/]url[@version] (default: its newest version)')
    .addOption(new Option('--ha-group <name>', 'check the members of this HA group only').conflicts('node'))
    .option('--node <id>', 'check this node only (with --check-ha, its whole HA group)')
    .option('--check-ha', 'also say whether each HA group would keep running the service through an upgrade')
    .option('--org <org>', 'org to check in (default: CAREEN_ORG, else your own org)')
    .option('--agbot-url <url>', 'agbot URL (default: CAREEN_AGBOT_URL, else http://127.0.0.1:8081)')
    .action(async (options: Options, command: Command) => {
      const agbotUrl = resolveAgbotUrl(options.agbotUrl, services.env);
      const { context, org } = await orgCommandContext(command, services, options.org);
      const body = deployCheckBody(options, org);
      const agbot = await context.serviceCalls<Agbot.paths>(agbotUrl);
      const answer = await askService('agbot', agbotUrl, '--agbot-url or CAREEN_AGBOT_URL', () =>
        agbot((api) => api.POST('/v1/orgs/{org}/deploycheck', { params: { path: { org } }, body })),
      );
      context.io.stdout.write(
        context.printer.format === 'json' ? formatJson(answer) : formatDeployCheck(answer),
      );
    });
}
