/**
 * A full resync: walks every org of the exchange and replaces the mirror with what it finds,
 * in one transaction. The leader runs it before it starts consuming changes.
 */
import { type DataSource } from 'typeorm';
import { type ExchangeClient } from '@careen/service';
import { type ExchangeMirror, type MirroredResource } from './exchange-mirror';
import { type MirroredNode } from './mirrored-node';

const COLLECTIONS: {
  resource: MirroredResource;
  collection: 'services' | 'deployment-policies' | 'management-policies';
  key: 'id' | 'name';
}[] = [
  { resource: 'service', collection: 'services', key: 'id' },
  { resource: 'deploymentPolicy', collection: 'deployment-policies', key: 'name' },
  { resource: 'managementPolicy', collection: 'management-policies', key: 'name' },
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
      nodes.push(...(await this.exchange.list<MirroredNode>(org, 'nodes')));
      for (const { resource, collection, key } of COLLECTIONS) {
        const items = await this.exchange.list<{ org: string; id?: string; name?: string }>(org, collection);
        resources.push(...items.map((data) => ({ resource, id: String(data[key]), data })));
      }
    }
    await this.dataSource.transaction((manager) => this.mirror.replaceAll(manager, nodes, resources, asOf));
    this.mirror.resynced(asOf);
    return { orgs: orgs.length, nodes: nodes.length, resources: resources.length, asOf };
  }
}
