/**
 * The Java client of errsvc, the error translation service.
 */
@NullMarked
package dev.errsvc.client;

import org.jspecify.annotations.NullMarked;
