/** The frame around every view: the places, the org shown (hub admins may switch), who is signed in. */
import { useEffect, useState, type ReactNode } from 'react';
import { read } from '../api/clients';
import { isAdmin } from '../api/identity';
import type { FeedState } from '../live/change-feed';
import { useConsole } from '../live/console-context';
import { hrefOf, type Route } from '../routing/route';

const PLACES: { label: string; route: Route; views: Route['view'][]; adminsOnly?: true }[] = [
  { label: 'Fleet', route: { view: 'fleet' }, views: ['fleet', 'node'] },
  { label: 'HA groups', route: { view: 'ha-groups' }, views: ['ha-groups'] },
  { label: 'Disruption', route: { view: 'disruption' }, views: ['disruption'] },
  { label: 'Management policies', route: { view: 'policies' }, views: ['policies', 'policy'] },
  { label: 'Rollouts', route: { view: 'rollouts' }, views: ['rollouts', 'rollout'] },
  { label: 'Maintenance', route: { view: 'maintenance' }, views: ['maintenance', 'maintenance-session'] },
  { label: 'Audit', route: { view: 'audit' }, views: ['audit'], adminsOnly: true },
];

const FEED_WORDS: Record<FeedState, string> = {
  connecting: 'connecting…',
  live: 'live',
  reconnecting: 'reconnecting…',
};

export function Layout({
  route,
  onOrg,
  onSignOut,
  children,
}: {
  route: Route;
  onOrg: (org: string) => void;
  onSignOut: () => void;
  children: ReactNode;
}) {
  const { clients, identity, org, feed } = useConsole();
  const [feedState, setFeedState] = useState<FeedState>('connecting');
  const [orgs, setOrgs] = useState<string[]>([identity.org]);
  useEffect(() => feed.onState(setFeedState), [feed]);
  useEffect(() => {
    if (identity.role !== 'hubAdmin') return;
    read(clients.exchange.GET('/v1/orgs'), 'exchange').then(
      (answer) => setOrgs(answer.items.map((item) => item.id)),
      () => undefined,
    );
  }, [clients, identity]);

  return (
    <div className="frame">
      {/* Moves focus without touching the URL's fragment, which holds the route. */}
      <a
        className="skip"
        href="#content"
        onClick={(event) => {
          event.preventDefault();
          document.getElementById('content')?.focus();
        }}
      >
        Skip to content
      </a>
      <header>
        <span className="brand">Careen</span>
        <nav aria-label="Views">
          {PLACES.filter((place) => !place.adminsOnly || isAdmin(identity)).map((place) => (
            <a
              key={place.label}
              href={hrefOf(place.route)}
              aria-current={place.views.includes(route.view) ? 'page' : undefined}
            >
              {place.label}
            </a>
          ))}
        </nav>
        <div className="who">
          {identity.role === 'hubAdmin' ? (
            <label>
              Org{' '}
              <select value={org} onChange={(event) => onOrg(event.target.value)} aria-label="Org shown">
                {orgs.map((id) => (
                  <option key={id}>{id}</option>
                ))}
              </select>
            </label>
          ) : (
            <span>org {org}</span>
          )}
          <span
            className={`feed feed-${feedState}`}
            role="status"
            title="Updates from the exchange's change feed"
          >
            {FEED_WORDS[feedState]}
          </span>
          <span>
            {identity.username} ({identity.role})
          </span>
          <button type="button" onClick={() => onSignOut()}>
            Sign out
          </button>
        </div>
      </header>
      <main id="content" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
