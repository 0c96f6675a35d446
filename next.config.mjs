/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native and worker-loading packages stay outside the bundle.
  serverExternalPackages: ['node-llama-cpp', 'officeparser', 'pdfjs-dist', 'pg'],
  poweredByHeader: false,
  // A separate build folder per checkout or worker when set (parallel builds must not share one).
  distDir: process.env.LAGOON_NEXT_DIST || '.next',
  // LAGOON_SKIP_TYPECHECK=1 only for work-in-progress builds; `npm run build` and CI always type-check.
  typescript: { ignoreBuildErrors: process.env.LAGOON_SKIP_TYPECHECK === '1' },
};

export default nextConfig;
