/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native and worker-loading packages stay outside the bundle.
  serverExternalPackages: ['node-llama-cpp', 'officeparser', 'pdfjs-dist', 'pg'],
  poweredByHeader: false,
  typescript: { ignoreBuildErrors: false },
};

export default nextConfig;
