/**
 * `careen sso set|show|remove`: an org's single sign-on, by its admins: the OpenID provider, the
 * groups that give each role, and whether passwords stay allowed. People then sign in with
 * `careen login --sso` or the console's single sign-on button.
 */
import { type Exchange } from '@careen/api-client';
import { type Command } from 'commander';
import { CliError } from '../cli-errors';
import { readAllInput } from '../terminal/prompts';
import { orgCommandContext, type CliServices } from './command-context';
import { removeAfterConfirmation, YES_OPTION } from './confirmation';
import { commaSeparated, repeated } from './repeated-option';

type Schemas = Exchange.components['schemas'];
type RoleMapping = Schemas['RoleMappingDto'];

const ORG_OPTION = [
  '--org <org>',
  'the org (default: CAREEN_ORG, else your own org); the hub is root',
] as const;

interface SetOptions {
  issuer: string;
  clientId: string;
  clientSecretStdin?: boolean;
  scope?: string[];
  groupsClaim?: string;
  usernameClaim?: string;
  map: string[];
  passwordLogin: boolean;
  org?: string;
}

/** `group=role`, the group being anything up to the last `=`; the exchange judges the role. */
export function parseRoleMapping(text: string): RoleMapping {
  const at = text.lastIndexOf('=');
  if (at <= 0 || at === text.length - 1) throw new CliError(`--map ${text}: write <group>=<role>`);
  return { group: text.slice(0, at), role: text.slice(at + 1) as RoleMapping['role'] };
}

function mappingLines(provider: Schemas['IdentityProviderResponse']): string {
  return provider.roleMappings.map((mapping) => `  ${mapping.group} → ${mapping.role}`).join('\n');
}

export function registerSsoCommands(program: Command, services: CliServices): void {
  const sso = program
    .command('sso')
    .description("an org's single sign-on through its OpenID provider (org admins)");

  sso
    .command('set')
    .description('set the provider and which groups give which role (tried at the provider first)')
    .requiredOption('--issuer <url>', "the provider's issuer URL")
    .requiredOption('--client-id <id>', 'the client registered at the provider for Careen')
    .option('--client-secret-stdin', 'read the client secret from stdin (a confidential client)')
    .option(
      '--scope <scope>',
      'scopes to ask, repeated or comma-separated (default: openid,profile,email)',
      commaSeparated,
    )
    .option('--groups-claim <claim>', 'the claim listing the groups (default: groups)')
    .option('--username-claim <claim>', 'the claim naming the user (default: preferred_username)')
    .requiredOption('--map <group=role>', 'a group and the role it gives; repeat for several', repeated)
    .option('--no-password-login', "refuse the org's passwords (root/root keeps its own)")
    .option(...ORG_OPTION)
    .action(async (options: SetOptions, command: Command) => {
      const roleMappings = options.map.map(parseRoleMapping);
      const { context, exchange, org } = await orgCommandContext(command, services, options.org);
      const clientSecret = options.clientSecretStdin
        ? (await readAllInput(context.io.stdin)).trim()
        : undefined;
      if (options.clientSecretStdin && !clientSecret) {
        throw new CliError('--client-secret-stdin was given but stdin is empty');
      }
      const provider = await exchange((api) =>
        api.PUT('/v1/orgs/{org}/identity-provider', {
          params: { path: { org } },
          body: {
            issuer: options.issuer,
            clientId: options.clientId,
            roleMappings,
            passwordLogin: options.passwordLogin,
            ...(clientSecret ? { clientSecret } : {}),
            ...(options.scope ? { scopes: options.scope } : {}),
            ...(options.groupsClaim ? { groupsClaim: options.groupsClaim } : {}),
            ...(options.usernameClaim ? { usernameClaim: options.usernameClaim } : {}),
          },
        }),
      );
      context.printer.result(
        provider,
        `org "${org}" signs in through ${provider.issuer}; passwords ${provider.passwordLogin ? 'still allowed' : 'refused'}\n${mappingLines(provider)}`,
      );
    });

  sso
    .command('show')
    .description("show the org's provider and role mapping (never the client secret)")
    .option(...ORG_OPTION)
    .action(async (options: { org?: string }, command: Command) => {
      const { context, exchange, org } = await orgCommandContext(command, services, options.org);
      context.printer.record(
        await exchange((api) => api.GET('/v1/orgs/{org}/identity-provider', { params: { path: { org } } })),
      );
    });

  sso
    .command('remove')
    .description('end single sign-on for the org and allow passwords again')
    .option(...ORG_OPTION)
    .option(...YES_OPTION)
    .action(async (options: { org?: string; yes?: boolean }, command: Command) => {
      const { context, exchange, org } = await orgCommandContext(command, services, options.org);
      await removeAfterConfirmation(context, `single sign-on of org "${org}"`, options.yes, () =>
        exchange((api) => api.DELETE('/v1/orgs/{org}/identity-provider', { params: { path: { org } } })),
      );
    });
}
