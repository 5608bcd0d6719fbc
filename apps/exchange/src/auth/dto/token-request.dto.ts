import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength, MinLength } from 'class-validator';

export class UserTokenRequestDto {
  @ApiProperty({ example: 'acme' })
  @IsString()
  @MinLength(1)
  @MaxLength(64)
  org!: string;

  @ApiProperty({ example: 'alice' })
  @IsString()
  @MinLength(1)
  @MaxLength(64)
  username!: string;

  @ApiProperty()
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  password!: string;
}

export class TokenResponse {
  @ApiProperty() accessToken!: string;
  @ApiProperty({ description: 'seconds until the token expires' }) expiresIn!: number;
}
