// The root layout of the App Router. `icons`: no favicon request (the example serves none).
export const metadata = { title: 'modelcontext-polyfill in Next.js', icons: { icon: 'data:,' } };

export default function RootLayout({ children }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
