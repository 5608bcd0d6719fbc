/**
 * A full resync: walks every org of the exchange and replaces the mirror with what it finds,
 * in one transaction. The leader runs it before it starts consuming changes.
 */
import { dataOf } from '@careen/api-client';
import { type ExchangeClient } from '@careen/service';
import { type DataSource } from 'typeorm';
import { type ExchangeMirror, type MirroredResource } from './exchange-mirror';
import { type MirroredNode } from './mirrored-node';

/** The resources the agbot mirrors besides nodes, each read whole from the exchange. */
const COLLECTIONS: {
  resource: MirroredResource;
  read: (exchange: ExchangeClient, org: string) => Promise<{ org: string; id?: string; name?: string }[]>;
  key: 'id' | 'name';
}[] = [
  {
    resource: 'service',
    read: async (exchange, org) =>
      (await dataOf(exchange.api.GET('/v1/orgs/{org}/services', { params: { path: { org } } }))).items,
    key: 'id',
  },
  {
    resource: 'deploymentPolicy',
    read: async (exchange, org) =>
      (await dataOf(exchange.api.GET('/v1/orgs/{org}/deployment-policies', { params: { path: { org } } })))
        .items,
    key: 'name',
  },
  {
    resource: 'window',
    read: async (exchange, org) =>
      (await dataOf(exchange.api.GET('/v1/orgs/{org}/windows', { params: { path: { org } } }))).items,
    key: 'name',
  },
  {
    resource: 'freeze',
    read: async (exchange, org) =>
      (await dataOf(exchange.api.GET('/v1/orgs/{org}/freezes', { params: { path: { org } } }))).items,
    key: 'name',
  },
  {
    resource: 'budget',
    read: async (exchange, org) =>
      (await dataOf(exchange.api.GET('/v1/orgs/{org}/budgets', { params: { path: { org } } }))).items,
    key: 'name',
  },
  {
    resource: 'gate',
    read: async (exchange, org) =>
      (await dataOf(exchange.api.GET('/v1/orgs/{org}/gates', { params: { path: { org } } }))).items,
    key: 'name',
  },
  {
    resource: 'haGroup',
    read: async (exchange, org) =>
      (await dataOf(exchange.api.GET('/v1/orgs/{org}/hagroups', { params: { path: { org } } }))).items,
    key: 'name',
  },
  {
    resource: 'managementPolicy',
    read: async (exchange, org) =>
      (await dataOf(exchange.api.GET('/v1/orgs/{org}/management-policies', { params: { path: { org } } })))
        .items,
    key: 'name',
  },
];

export interface ResyncCounts {
  orgs: number;
  nodes: number;
  resources: number;
  /** The change id the snapshot reflects. */
  asOf: number;
}

export class MirrorResync {
  constructor(
    private readonly dataSource: DataSource,
    private readonly mirror: ExchangeMirror,
    private readonly exchange: ExchangeClient,
    /** The newest change already published, asked before the exchange is read. */
    private readonly publishedHead: () => Promise<number>,
  ) {}

  async run(): Promise<ResyncCounts> {
    const asOf = await this.publishedHead();
    const orgs = await this.exchange.listOrgs();
    const nodes: MirroredNode[] = [];
    const resources: { resource: MirroredResource; id: string; data: { org: string } }[] = [];
    for (const org of orgs) {
      const listed = await dataOf(
        this.exchange.api.GET('/v1/orgs/{org}/nodes', { params: { path: { org } } }),
      );
      nodes.push(...listed.items);
      for (const { resource, read, key } of COLLECTIONS) {
        const items = await read(this.exchange, org);
        resources.push(...items.map((data) => ({ resource, id: String(data[key]), data })));
      }
    }
    await this.dataSource.transaction((manager) => this.mirror.replaceAll(manager, nodes, resources, asOf));
    this.mirror.resynced(asOf);
    return { orgs: orgs.length, nodes: nodes.length, resources: resources.length, asOf };
  }
}
