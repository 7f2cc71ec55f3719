// Placeholder: this page is being written.
export function DashboardPage() {
  return <h1>DashboardPage</h1>;
}
