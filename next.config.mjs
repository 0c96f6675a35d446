/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native and worker-loading packages stay outside the bundle.
  serverExternalPackages: ['node-llama-cpp', 'officeparser', 'pdfjs-dist', 'pg'],
  poweredByHeader: false,
  // A separate build folder per checkout or worker when set (parallel builds must not share one).
  distDir: process.env.LAGOON_NEXT_DIST || '.next',
  // LAGOON_SKIP_TYPECHECK=1: work-in-progress builds, and the container image's build (its sources are the ones
  // `npm run typecheck` checks; in the image the check only cost 1.5 minutes). `npm run build` and CI type-check.
  typescript: { ignoreBuildErrors: process.env.LAGOON_SKIP_TYPECHECK === '1' },
  // LAGOON_NEXT_BUILD_CACHE=0: no Turbopack build cache (.next/cache), for the container image's build, which drops
  // it anyway (writing it took 84 s there).
  experimental: { turbopackFileSystemCacheForBuild: process.env.LAGOON_NEXT_BUILD_CACHE !== '0' },
};

export default nextConfig;
