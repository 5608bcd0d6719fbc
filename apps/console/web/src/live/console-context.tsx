/** What every view reads: the clients, the signed-in identity, the org shown and its change feed. */
import { createContext, useContext } from 'react';
import type { Clients } from '../api/clients';
import type { Identity } from '../api/identity';
import type { ChangeFeed } from './change-feed';

export interface ConsoleContext {
  clients: Clients;
  identity: Identity;
  /** The org the views show: the user's own, or the one a hub admin chose. */
  org: string;
  feed: ChangeFeed;
}

export const ConsoleContextValue = createContext<ConsoleContext | undefined>(undefined);

export function useConsole(): ConsoleContext {
  const context = useContext(ConsoleContextValue);
  if (!context) throw new Error('useConsole is used outside the signed-in console');
  return context;
}
