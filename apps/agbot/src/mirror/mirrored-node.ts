/** The parts of an exchange node the agbot decides on, as the exchange publishes them. */
export interface MirroredNode {
  org: string;
  id: string;
  pattern: string | null;
  policy: { properties: { name: string; value: unknown; type?: string }[]; constraints: string[] };
  rack: string | null;
  haGroup: string | null;
  schedulable: boolean;
  maintenance: Record<string, unknown> | null;
  status: {
    lastHeartbeat?: string;
    workloads?: {
      deploymentPolicy?: string;
      service: { org: string; url: string; version: string };
      state?: string;
    }[];
  } | null;
}
