/**
 * The service versions the exchange holds, indexed for placement: which version of a service a
 * deployment policy's range selects, per arch. Owns the semver reading; never looks at nodes.
 */
import { toSemverRange } from '@careen/policy';
import { rcompare, satisfies, valid } from 'semver';
import { type PlacementService, scopedKey } from './placement.types';

export class ServiceCatalog {
  /** Per `org/url`: its versions, newest first. */
  private readonly byService = new Map<string, PlacementService[]>();

  constructor(services: Iterable<PlacementService>) {
    for (const service of services) {
      if (valid(service.version) === null) continue;
      const key = scopedKey(service.org, service.url);
      const list = this.byService.get(key) ?? [];
      list.push(service);
      this.byService.set(key, list);
    }
    for (const list of this.byService.values()) {
      list.sort((a, b) => rcompare(a.version, b.version) || a.arch.localeCompare(b.arch));
    }
  }

  /**
   * The newest version of `org/url` within `range` (a semver range or an Open Horizon interval)
   * built for `arch`; with no arch, the newest for any arch. Undefined when none fits (or the
   * range does not parse).
   */
  newestInRange(org: string, url: string, range: string, arch?: string): PlacementService | undefined {
    const semverRange = toSemverRange(range);
    if (semverRange === undefined) return undefined;
    return this.byService
      .get(scopedKey(org, url))
      ?.find(
        (service) => (arch === undefined || service.arch === arch) && satisfies(service.version, semverRange),
      );
  }

  /** A given version for `arch` (any arch when none is given). */
  exact(org: string, url: string, version: string, arch?: string): PlacementService | undefined {
    return this.byService
      .get(scopedKey(org, url))
      ?.find((service) => service.version === version && (arch === undefined || service.arch === arch));
  }

  /** Whether the exchange holds any version of the service at all. */
  has(org: string, url: string): boolean {
    return this.byService.has(scopedKey(org, url));
  }
}
