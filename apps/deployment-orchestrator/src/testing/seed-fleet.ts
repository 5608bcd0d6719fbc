/** A fleet that Shipyard's example strategy fits (docs/domain.md, Airship Shipyard). */
export interface SeedNode {
  id: string;
  tags: string[];
  rack: string;
  labels: Record<string, string>;
  haGroup: string | null;
}

/** ntp01, three control nodes on rack03, two compute nodes on each of rack01 and rack02, one monitor. */
export function seedFleet(): SeedNode[] {
  const node = (id: string, tags: string[], rack: string, haGroup: string | null = null): SeedNode => ({
    id,
    tags,
    rack,
    labels: {},
    haGroup,
  });
  return [
    node('ntp01', ['ntp'], 'rack03'),
    node('ctl01', ['control'], 'rack03', 'control-ha'),
    node('ctl02', ['control'], 'rack03', 'control-ha'),
    node('ctl03', ['control'], 'rack03', 'control-ha'),
    node('cmp11', ['compute'], 'rack01', 'compute-1'),
    node('cmp12', ['compute'], 'rack01', 'compute-1'),
    node('cmp21', ['compute'], 'rack02', 'compute-2'),
    node('cmp22', ['compute'], 'rack02', 'compute-2'),
    node('mon01', ['monitoring'], 'rack02'),
  ];
}
