/**
 * The console: the sign-in until someone is signed in, then the views of one org, kept live by
 * its change feed. The tokens live in this component's state only: a reload signs out.
 */
import { AuditView } from './views/audit-view';
import { Fragment, useCallback, useEffect, useMemo, useState } from 'react';
import { createClients } from './api/clients';
import type { Identity } from './api/identity';
import type { ApiProblem } from './api/problem';
import { ChangeFeed } from './live/change-feed';
import { ConsoleContextValue } from './live/console-context';
import type { Route } from './routing/route';
import { useRoute } from './routing/use-route';
import { FleetView } from './views/fleet-view';
import { HaGroupsView } from './views/ha-groups-view';
import { DisruptionView } from './views/disruption-view';
import { Layout } from './views/layout';
import { LoginView } from './views/login-view';
import { MaintenanceSessionView } from './views/maintenance-session-view';
import { MaintenanceView } from './views/maintenance-view';
import { NodeView } from './views/node-view';
import { PoliciesView } from './views/policies-view';
import { PolicyView } from './views/policy-view';
import { RolloutView } from './views/rollout-view';
import { RolloutsView } from './views/rollouts-view';

export function App() {
  const [identity, setIdentity] = useState<Identity>();
  const [notice, setNotice] = useState<string>();
  const [org, setOrg] = useState<string>();

  const signOut = useCallback((why?: string) => {
    setIdentity(undefined);
    setOrg(undefined);
    setNotice(why);
  }, []);
  const expired = useCallback(
    (at: number) =>
      signOut(`Your sign-in expired at ${new Date(at).toLocaleTimeString()}. Sign in again to go on.`),
    [signOut],
  );
  const refused = useCallback(
    (problem: ApiProblem) =>
      problem.code === 'TOKEN_EXPIRED'
        ? expired(Date.now())
        : signOut(`You were signed out: ${problem.message}. Sign in again to go on.`),
    [expired, signOut],
  );

  // The session renews the token while the console is open; the login's end signs out, even
  // when no request is made then.
  useEffect(() => {
    if (!identity) return;
    return identity.session.keep((why) =>
      'expiredAt' in why ? expired(why.expiredAt) : refused(why.refused),
    );
  }, [identity, expired, refused]);
  const signOutByHand = useCallback(() => {
    // Ended on the exchange too; signed out here whether or not it answers.
    void identity?.session.revoke().catch(() => undefined);
    signOut();
  }, [identity, signOut]);

  if (!identity)
    return (
      <LoginView
        notice={notice}
        onSignedIn={(signedIn) => {
          setNotice(undefined);
          setIdentity(signedIn);
          setOrg(signedIn.org);
        }}
      />
    );
  return (
    <SignedIn
      identity={identity}
      org={org ?? identity.org}
      onOrg={setOrg}
      onRefused={refused}
      onSignOut={signOutByHand}
    />
  );
}

function SignedIn({
  identity,
  org,
  onOrg,
  onRefused,
  onSignOut,
}: {
  identity: Identity;
  org: string;
  onOrg: (org: string) => void;
  onRefused: (problem: ApiProblem) => void;
  onSignOut: () => void;
}) {
  const route = useRoute();
  const clients = useMemo(() => createClients(identity, onRefused), [identity, onRefused]);
  const feed = useMemo(() => new ChangeFeed(clients, org), [clients, org]);
  useEffect(() => {
    feed.start();
    return () => feed.stop();
  }, [feed]);
  const context = useMemo(() => ({ clients, identity, org, feed }), [clients, identity, org, feed]);
  return (
    <ConsoleContextValue.Provider value={context}>
      <Layout route={route} onOrg={onOrg} onSignOut={onSignOut}>
        <Fragment key={`${org}:${JSON.stringify(route)}`}>{viewOf(route)}</Fragment>
      </Layout>
    </ConsoleContextValue.Provider>
  );
}

function viewOf(route: Route) {
  switch (route.view) {
    case 'fleet':
      return <FleetView />;
    case 'node':
      return <NodeView node={route.node} />;
    case 'ha-groups':
      return <HaGroupsView />;
    case 'disruption':
      return <DisruptionView />;
    case 'policies':
      return <PoliciesView />;
    case 'policy':
      return <PolicyView policy={route.policy} />;
    case 'rollouts':
      return <RolloutsView />;
    case 'rollout':
      return <RolloutView rollout={route.rollout} />;
    case 'maintenance':
      return <MaintenanceView />;
    case 'maintenance-session':
      return <MaintenanceSessionView session={route.session} />;
    case 'audit':
      return <AuditView />;
  }
}
