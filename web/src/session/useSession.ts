import { useSyncExternalStore } from 'react';
import { currentSession, subscribe } from './store';

export const useSession = () => useSyncExternalStore(subscribe, currentSession);
