// Forwards to the app backend (lib/app), which the server process built and published before Next started.
import { appBackend } from '@/lib/app/runtime.ts';

export const dynamic = 'force-dynamic';

export const GET = (req: Request) => appBackend().routes.rateLimits(req, {});
