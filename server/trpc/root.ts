// The app router: one namespace per domain.
import "server-only";
import { router } from "./init";
import { dashboardRouter } from "./routers/dashboard";
import { explorerRouter } from "./routers/explorer";
import { settingsRouter } from "./routers/settings";

export const appRouter = router({ settings: settingsRouter, dashboard: dashboardRouter, explorer: explorerRouter });

export type AppRouter = typeof appRouter;
