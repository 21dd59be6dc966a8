(ctx) => import('./@@CORE_JS@@').then((m) => m.start(ctx))
