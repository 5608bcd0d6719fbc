import { CurrentPrincipal, OrgScoped, NeedsRole, type Principal } from '@careen/auth';
import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiBasicAuth,
  ApiBearerAuth,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { CreateUserDto } from './dto/create-user.dto';
import { UserListResponse, UserResponse } from './dto/user.response';
import { UsersService } from './users.service';

@ApiTags('users')
@ApiBearerAuth()
@ApiBasicAuth()
@OrgScoped()
@Controller('v1/orgs/:org/users')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Post()
  @ApiOperation({ summary: 'Add a user to the org' })
  @ApiCreatedResponse({ type: UserResponse })
  @ApiConflictResponse({ description: 'a user of that name is already in the org: USER_EXISTS' })
  @NeedsRole('orgAdmin')
  add(
    @CurrentPrincipal() actor: Principal,
    @Param('org') org: string,
    @Body() body: CreateUserDto,
  ): Promise<UserResponse> {
    return this.users.add(actor, org, body);
  }

  @Get()
  @ApiOperation({ summary: "List the org's users" })
  @ApiOkResponse({ type: UserListResponse })
  @NeedsRole('orgAdmin')
  list(@Param('org') org: string): Promise<UserListResponse> {
    return this.users.list(org);
  }

  @Get(':username')
  @ApiOperation({ summary: 'Read a user' })
  @ApiOkResponse({ type: UserResponse })
  get(
    @CurrentPrincipal() actor: Principal,
    @Param('org') org: string,
    @Param('username') username: string,
  ): Promise<UserResponse> {
    return this.users.get(actor, org, username);
  }

  @Delete(':username')
  @ApiOperation({ summary: 'Remove a user' })
  @ApiNoContentResponse({ description: 'removed' })
  @ApiConflictResponse({ description: 'the hub admin root/root is never removed: PROTECTED_USER' })
  @NeedsRole('orgAdmin')
  @HttpCode(204)
  remove(@Param('org') org: string, @Param('username') username: string): Promise<void> {
    return this.users.remove(org, username);
  }
}
