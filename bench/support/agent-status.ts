/** The status report an agent running two workloads sends, as the agent-path benches send it. */
export const AGENT_STATUS = {
  agentVersion: { package: '1.0.0', failed: null, upgradeStart: null, upgradeEnd: null },
  workloads: [
    {
      deploymentPolicy: 'gateway-eu',
      service: { org: 'bench', url: 'bench.gateway', version: '1.4.2' },
      state: 'running',
    },
    {
      deploymentPolicy: 'cache-eu',
      service: { org: 'bench', url: 'bench.cache', version: '2.0.1' },
      state: 'running',
    },
  ],
};
