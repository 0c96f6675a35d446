/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native and worker-loading packages stay outside the bundle.
  serverExternalPackages: ['node-llama-cpp', 'officeparser', 'pdfjs-dist', 'pg'],
  poweredByHeader: false,
  // A separate build folder per checkout or worker when set (parallel builds must not share one).
  distDir: process.env.LAGOON_NEXT_DIST || '.next',
  typescript: { ignoreBuildErrors: false },
};

export default nextConfig;
