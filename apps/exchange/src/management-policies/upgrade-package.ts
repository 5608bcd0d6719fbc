/**
 * Whether an agent upgrade policy has a package to upgrade to. Agent packages carry no arch:
 * one package serves every arch, so a version missing is missing for every node the policy
 * selects, whatever its `careen.arch`. Pure: the published versions and the archs come in.
 */
import { type AgentUpgradePolicy } from '@careen/contracts';
import semver from 'semver';

/** The arch a node declares in its `careen.arch` property; `unknown` when it declares none. */
export function archOf(node: {
  policy?: { properties?: { name: string; value: unknown }[] } | null;
}): string {
  const arch = node.policy?.properties?.find((property) => property.name === 'careen.arch')?.value;
  return typeof arch === 'string' && arch !== '' ? arch : 'unknown';
}

/**
 * Why no node could enact the upgrade: its exact version is not published (agents wait for it
 * without a word), or it follows `current` and no package is published at all; null when one is.
 */
export function missingPackage(
  upgrade: Pick<AgentUpgradePolicy, 'atLeastVersion'>,
  published: readonly string[],
  archs: readonly string[],
): string | null {
  const wanted = upgrade.atLeastVersion;
  const found =
    wanted === 'current'
      ? published.length > 0
      : published.some((version) => semver.valid(version) && semver.eq(version, wanted));
  if (found) return null;
  const forArchs = archs.length > 0 ? [...new Set(archs)].sort().join(', ') : 'any';
  return wanted === 'current'
    ? `no agent package is published, for any arch (it selects nodes of arch ${forArchs})`
    : `no agent package of version "${wanted}" is published, for any arch (it selects nodes of arch ${forArchs})`;
}
