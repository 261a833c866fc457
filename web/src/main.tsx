import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode, type ReactNode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, Navigate, RouterProvider } from 'react-router';
import { Layout } from './components/Layout';
import { Assistant } from './pages/Assistant';
import { Inventory } from './pages/Inventory';
import { Login } from './pages/Login';
import { Queue } from './pages/Queue';
import { Runs } from './pages/Runs';
import { SkuSite } from './pages/SkuSite';
import { SsoCallback } from './pages/SsoCallback';
import { Versions } from './pages/Versions';
import { useSession } from './session/useSession';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: { queries: { staleTime: 15_000, retry: (n, err) => n < 1 && !(err as { status?: number }).status, refetchOnWindowFocus: false } },
});

function SignedIn({ children }: { children: ReactNode }) {
  return useSession() ? children : <Navigate to="/login" replace />;
}

const router = createBrowserRouter(
  [
    { path: '/login', element: <Login /> },
    { path: '/sso/callback', element: <SsoCallback /> },
    {
      element: <SignedIn><Layout /></SignedIn>,
      children: [
        { index: true, element: <Navigate to="/queue" replace /> },
        { path: '/queue', element: <Queue /> },
        { path: '/sku/:uid', element: <SkuSite /> },
        { path: '/runs', element: <Runs /> },
        { path: '/versions', element: <Versions /> },
        { path: '/inventory', element: <Inventory /> },
        { path: '/assistant', element: <Assistant /> },
        { path: '*', element: <Navigate to="/queue" replace /> },
      ],
    },
  ],
  { basename: '/app' },
);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);
