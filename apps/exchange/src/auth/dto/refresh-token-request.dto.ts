import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength, MinLength } from 'class-validator';

/** `{refreshToken}`, to renew an access token or to end the login it belongs to. */
export class RefreshTokenRequestDto {
  @ApiProperty({ description: 'the refresh token of the last token answer' })
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  refreshToken!: string;
}
