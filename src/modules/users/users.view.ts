import type { CompanyUserRole, OperatorUserRole, UserStatus } from '../../db/schema.js';
import type { UserRow } from './users.repository.js';

export interface UserView {
  id: string;
  email: string;
  name: string | null;
  role: CompanyUserRole | OperatorUserRole;
  status: UserStatus;
  companyId: string | null;
  operatorId: string | null;
  totpEnrolled: boolean;
  createdAt: string;
}

export function toUserView(row: UserRow): UserView {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    status: row.status,
    companyId: row.company_id,
    operatorId: row.operator_id,
    totpEnrolled: row.totp_confirmed_at !== null,
    createdAt: row.created_at.toISOString(),
  };
}

/** Who a user is to the sealing AAD and to the scope checks: their company, or their operators. */
export function ownerOf(row: Pick<UserRow, 'company_id' | 'operator_id'>): string {
  return (row.company_id ?? row.operator_id) as string;
}
