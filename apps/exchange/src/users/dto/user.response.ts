import { ROLES, type Role } from '@careen/auth';
import { ApiProperty } from '@nestjs/swagger';
import { type UserEntity } from '../user.entity';

/** A user as clients see it: never the password hash. */
export class UserResponse {
  @ApiProperty() org!: string;
  @ApiProperty() username!: string;
  @ApiProperty({ enum: ROLES }) role!: Role;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'the issuer of the OpenID provider the user signs in through; null for a local user',
  })
  identityProvider!: string | null;
  @ApiProperty({ type: String, format: 'date-time' }) createdAt!: string;

  static from(user: UserEntity): UserResponse {
    return {
      org: user.org,
      username: user.username,
      role: user.role,
      identityProvider: user.identityProvider,
      createdAt: user.createdAt.toISOString(),
    };
  }
}

export class UserListResponse {
  @ApiProperty({ type: [UserResponse] }) items!: UserResponse[];
  @ApiProperty({ type: 'integer' }) total!: number;
}
