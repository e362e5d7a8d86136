// The 6 x 5-step suite of benches/evidence_suite.rs, step for step.
const { test, expect } = require('@playwright/test');

let n = 0;
const unique = (prefix) => `${prefix} ${Date.now()}${process.hrtime.bigint()}-${n++}`;

test('sign_in', async ({ page }) => {
  await test.step('Open the login page', async () => {
    await page.goto('/login');
    await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  });
  await test.step('Enter the email', async () => {
    await page.getByLabel('Email').fill('ada@example.com');
  });
  await test.step('Enter the password', async () => {
    await page.getByLabel('Password').fill('secret');
  });
  await test.step('Sign in', async () => {
    await page.getByRole('button', { name: 'Sign in' }).click();
  });
  await test.step('The dashboard greets Ada', async () => {
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Welcome, Ada');
  });
});

test('wrong_password', async ({ page }) => {
  await test.step('Open the login page', async () => {
    await page.goto('/login');
  });
  await test.step('Enter a wrong password', async () => {
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Password').fill('wrong');
  });
  await test.step('Sign in', async () => {
    await page.getByRole('button', { name: 'Sign in' }).click();
  });
  await test.step('An error is shown', async () => {
    await expect(page.getByRole('alert')).toHaveText('Invalid email or password');
  });
  await test.step('Still on the login page', async () => {
    await expect(page).toHaveURL(/\/login$/);
  });
});

test('add_item', async ({ page }) => {
  const name = unique('hammer');
  await test.step('Open the list', async () => {
    await page.goto('/items');
  });
  await test.step('Type the item', async () => {
    await page.getByTestId('new-item').fill(name);
  });
  await test.step('Choose tools, urgent', async () => {
    await page.getByTestId('category').selectOption(['tools']);
    await page.getByTestId('urgent').check();
  });
  await test.step('Add it', async () => {
    await page.getByTestId('new-item').press('Enter');
  });
  await test.step('It is listed', async () => {
    await expect(page.getByTestId('item').filter({ hasText: name })).toContainText('urgent');
  });
});

test('remove_item', async ({ page }) => {
  const name = unique('saw');
  const item = page.getByTestId('item').filter({ hasText: name });
  await test.step('Open the list', async () => {
    await page.goto('/items');
  });
  await test.step('Add an item', async () => {
    await page.getByTestId('new-item').fill(name);
    await page.getByTestId('add-item').click();
  });
  await test.step('It is listed', async () => {
    await expect(item).toBeVisible();
  });
  await test.step('Remove it', async () => {
    await item.getByRole('button', { name: 'Remove' }).click();
  });
  await test.step('It is gone', async () => {
    await expect(item).toHaveCount(0);
  });
});

test('console_and_network', async ({ page }) => {
  await test.step('Open the console page', async () => {
    await page.goto('/console');
  });
  await test.step('The API answers', async () => {
    await expect(page.getByTestId('data-message')).toContainText('Hello from the API');
  });
  await test.step('Load a missing resource', async () => {
    await page.getByTestId('load-missing').click();
  });
  await test.step('It is not found', async () => {
    await expect(page.getByTestId('missing-status')).toHaveText('not found');
  });
  await test.step('Throw an error in the page', async () => {
    await page.getByTestId('throw').click();
  });
});

test('todos', async ({ page }) => {
  const newTodo = page.getByPlaceholder('What needs to be done?');
  await test.step('Open the app', async () => {
    await page.goto('/todos/');
  });
  await test.step('Add a todo', async () => {
    await newTodo.fill('buy milk');
    await newTodo.press('Enter');
  });
  await test.step('Add another', async () => {
    await newTodo.fill('feed the cat');
    await newTodo.press('Enter');
  });
  await test.step('Mark all as complete', async () => {
    await page.getByLabel('Mark all as complete').check();
  });
  await test.step('Nothing is left', async () => {
    await expect(page.getByTestId('todo-count')).toHaveText('0 items left');
  });
});
