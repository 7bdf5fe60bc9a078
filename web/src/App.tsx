import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { BrowserRouter, Route, Routes } from 'react-router';
import { ApiError } from './api/client';
import { AuthProvider } from './auth/AuthContext';
import { RequireSignIn } from './auth/RequireSignIn';
import { PreferredTheme } from './components/PreferredTheme';
import { WorkspaceLayout } from './components/WorkspaceLayout';
import { AuthCallbackPage } from './pages/AuthCallbackPage';
import { DocumentPage } from './pages/DocumentPage';
import { HomePage } from './pages/HomePage';
import { InvitePage } from './pages/InvitePage';
import { NotFoundPage } from './pages/NotFoundPage';
import { PublicDocumentPage } from './pages/PublicDocumentPage';
import { SettingsPage } from './pages/SettingsPage';
import { SignInPage } from './pages/SignInPage';
import { WorkspacePage } from './pages/WorkspacePage';
import { WorkspaceSettingsPage } from './pages/WorkspaceSettingsPage';
import { cssVariablesResolver, theme } from './theme';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 10_000,
      // A 4xx will not change by asking again; network errors and 503s may.
      retry: (count, error) => !(error instanceof ApiError && error.status < 500) && count < 2,
    },
  },
});

/** The routes of ARCHITECTURE 5.17. */
export function App() {
  return (
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver} defaultColorScheme="auto">
      <QueryClientProvider client={queryClient}>
        <BrowserRouter>
          <AuthProvider>
            <PreferredTheme />
            <Routes>
              <Route path="/sign-in" element={<SignInPage />} />
              <Route path="/auth/callback" element={<AuthCallbackPage />} />
              <Route path="/p/:documentId" element={<PublicDocumentPage />} />
              <Route path="/invite/:token" element={<InvitePage />} />
              <Route
                path="/"
                element={
                  <RequireSignIn>
                    <HomePage />
                  </RequireSignIn>
                }
              />
              <Route
                path="/settings"
                element={
                  <RequireSignIn>
                    <SettingsPage />
                  </RequireSignIn>
                }
              />
              <Route
                path="/w/:workspaceId"
                element={
                  <RequireSignIn>
                    <WorkspaceLayout />
                  </RequireSignIn>
                }
              >
                <Route index element={<WorkspacePage />} />
                <Route path="d/:documentId" element={<DocumentPage />} />
                <Route path="settings" element={<WorkspaceSettingsPage />} />
              </Route>
              <Route path="*" element={<NotFoundPage />} />
            </Routes>
          </AuthProvider>
        </BrowserRouter>
      </QueryClientProvider>
    </MantineProvider>
  );
}
