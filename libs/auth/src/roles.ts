export const ROLES = ['OWNER', 'ADMIN', 'EDITOR', 'COMMENTER', 'VIEWER'] as const;
export type Role = (typeof ROLES)[number];

export const ROLE_LEVEL: Record<Role, number> = { OWNER: 5, ADMIN: 4, EDITOR: 3, COMMENTER: 2, VIEWER: 1 };

export const isRole = (value: unknown): value is Role => typeof value === 'string' && value in ROLE_LEVEL;

export const atLeast = (role: Role, minimum: Role): boolean => ROLE_LEVEL[role] >= ROLE_LEVEL[minimum];
