// Who is signed in, as the service told the desk (GET /api/v1/auth/me): pages that act differently
// for a company and for the operators read it here. It only shapes the pages; the service decides.
export const viewer: { userId: string; companyId: string | null; role: string } = { userId: '', companyId: null, role: '' };
